"""The ``gpusim`` command line: one module per subcommand, :mod:`~gpusim.cli.app` ties them together."""

from gpusim.cli.app import main

__all__ = ["main"]
