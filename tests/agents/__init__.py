"""The agents tests."""
