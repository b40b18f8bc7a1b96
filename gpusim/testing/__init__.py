"""Hypothesis strategies and oracles for property tests of kernels and algorithms."""
