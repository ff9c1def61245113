"""Readers for test sets: plain text (one segment a line) and NIST/WMT SGML."""
