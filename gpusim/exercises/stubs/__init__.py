"""The exercises' stubs, one file each (``eNN_slug.py``): a kernel with its body to fill.

``gpusim exercise N`` prints one; copy it to a file, fill the body and run ``gpusim exercise N
FILE.py``.  As shipped, every stub fails its checker (``tests/test_exercises.py``).
"""
