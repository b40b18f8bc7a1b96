"""Package discovery for the ``gpusim`` wheel (the rest of the metadata is in ``pyproject.toml``).

``algorithms/`` and ``backends/`` sit at the top of the repository but install inside the ``gpusim``
namespace (as ``gpusim.algorithms`` and ``gpusim.backends``), which setuptools' automatic discovery cannot
express on its own: every subpackage of the three roots is found here, so a new folder ships without
editing a list.
"""

from setuptools import find_packages, setup

ROOTS = {"gpusim": "gpusim", "gpusim.algorithms": "algorithms", "gpusim.backends": "backends"}

package_dir = {}
packages = []
for name, folder in ROOTS.items():
    package_dir[name] = folder
    packages.append(name)
    for sub in find_packages(folder, exclude=["examples"]):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(package_dir=package_dir, packages=packages)
