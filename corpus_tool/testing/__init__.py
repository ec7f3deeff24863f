"""Helpers for tests and benchmarks: synthetic data only, never real personal data or secrets."""
