"""The evaluation tests."""
