"""The differential tests."""
