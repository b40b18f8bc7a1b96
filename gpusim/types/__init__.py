"""The inputs and results of the algorithms: graphs, preference lists, generators, result types and
the checks that validate a result against its input.  Imports nothing above the language."""
