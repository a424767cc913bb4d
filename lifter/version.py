"""lift's version, and the name it signs reports and cache records with (a leaf module: the
pipeline's modules import it, and `lifter/__init__.py` imports the pipeline)."""
__version__ = "0.1.0"
TOOL = f"lift {__version__}"
