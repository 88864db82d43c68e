"""Built-in op families. Each subpackage is an ordinary tenferro plugin, found through the
``tenferro`` entry-point group exactly as a third-party plugin is."""
