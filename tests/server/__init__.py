"""Tests of the table server."""
