"""The docs tests."""
