"""The batch stepper of the compiled envs: many games stepped together in numba, one job a module.
May import: big2_env.engine (its compiled core), observations (the views' kernels) and players (the compiled Smart).

* :mod:`~big2_env.envs.batch.layout`: the rules state, one int64 row per game (hands, cards played,
  the core's table, decisions), its named columns and the record type that reads it.
* :mod:`~big2_env.envs.batch.views`: which view a batch writes (an explicit id), each view's own
  memory, and the kernels that keep it and write it: the paper's 277 numbers (here), the extended
  view (:mod:`~big2_env.envs.batch.extended`), Charlesworth's 412 (:mod:`~big2_env.observations.charlesworth`).
* :mod:`~big2_env.envs.batch.candidates`: every mover's legal plays as candidate rows.
* :mod:`~big2_env.envs.batch.moves`: one game's deal, legal plays, moves and scores, the one place
  where a move changes the rules state (then each view's memory hears of it).
* :mod:`~big2_env.envs.batch.stepper`: the parallel loops over games that :mod:`~big2_env.envs.vector`,
  :mod:`~big2_env.envs.vector_opponents` and :mod:`~big2_env.envs.positions` run, and their input checks.

Nothing here is imported by ``big2_env.envs`` itself (numba loads on first use).
"""
