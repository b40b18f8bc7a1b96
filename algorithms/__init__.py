"""The algorithms of the source papers, each written once against the kernel language ``T``."""
