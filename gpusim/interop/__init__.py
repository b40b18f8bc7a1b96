"""gpusim seen from other libraries: the NetworkX dispatch backend (``backend="gpusim"``)."""
