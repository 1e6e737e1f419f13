"""The local web table: ``big2 serve``, a page to play against any agent, watch four agents play,
see what they think and step through replays.

* :mod:`~big2_env.web.tables`: the games being played (a :class:`~big2_env.web.tables.Table` per
  game, kept in a bounded :class:`~big2_env.web.tables.TableStore` that forgets idle ones) and what a
  viewer may see of them;
* :mod:`~big2_env.web.server`: the HTTP server (the standard library's threading server: a JSON API
  and the page's own files, ``static/``, nothing fetched from elsewhere).

Replays use the engine's format (:mod:`big2_env.engine.replay`).

Layer: above ``envs``, below ``cli``; it imports the engine, players and evaluation (to load agents
as the command line does), never :mod:`agents`.
"""
