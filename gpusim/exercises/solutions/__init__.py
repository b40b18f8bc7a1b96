"""Solutions of the exercises, one file each (``eNN_slug.py``), kept apart from the stubs.

Read one only after trying: ``gpusim exercise N FILE.py`` says what is wrong with yours.  The tests
check that every solution here passes the checker (``tests/test_exercises.py``).
"""
