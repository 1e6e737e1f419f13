"""The players tests."""
