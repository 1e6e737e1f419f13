"""The observations tests."""
