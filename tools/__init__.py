"""Tools for working on sparkload itself (not shipped with the package)."""
