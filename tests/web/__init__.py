"""The web tests."""
