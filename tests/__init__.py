"""The test suite: one folder per layer (see docs/testing.md)."""
