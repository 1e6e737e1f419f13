"""Tools for developing big2_env itself, run from a checkout: the import-graph check
(:mod:`~big2_env.devtools.imports`), the figure tags of the pages (:mod:`~big2_env.devtools.figures`),
the results files the benchmarks write (:mod:`~big2_env.devtools.records`) and the docs' speed
pictures (:mod:`~big2_env.devtools.pictures`).
May import: the standard library, and matplotlib inside the function that draws a picture; nothing of big2_env's layers."""
