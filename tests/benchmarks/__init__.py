"""The benchmarks tests."""
