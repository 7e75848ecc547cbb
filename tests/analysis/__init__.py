"""Tests of the exact analysis."""
