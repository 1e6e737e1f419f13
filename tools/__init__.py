"""Tools for developing big2-env itself, run from a checkout (they are not installed with the package):
the import-graph check (:mod:`tools.imports`), the figure tags of the pages (:mod:`tools.figures`) and
the docs' speed pictures (:mod:`tools.pictures`).
May import: the standard library, big2_env (read-only), and matplotlib inside the function that draws a picture."""
