"""Tests of the pages in Chromium."""
