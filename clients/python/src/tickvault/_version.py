"""The package version, kept equal to the tickvault service's package.json "version"."""

__version__ = "0.1.0"
