"""Tests of the PAR sheet."""
