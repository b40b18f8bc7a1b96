"""The runtime an algorithm runs through: :class:`~gpusim.runtime.device.Device` (the backend chosen,
memory, launches), the launcher that counts and times them, headless compilation, and the registry and
dispatcher of the algorithms."""
