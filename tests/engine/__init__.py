"""The engine tests."""
