"""The cell: one prepared (task, config, rep) and its life: layout (`cell`), prep, the agent's seal
(`seal`, `seal_guard`, `world`, `stopserver`, `stop_client`), workers, finalize (`evidence`, `judge`,
`record`, `finaldiff`, `outcome`, `leaks`, `stream`, `transcript`, `versions`), plugin arms (`arms`) and
imported eval tasks (`evalimport/`).

Imports: the suite, installer, sim, review, models, the stop's packages and the leaves; never the
matrix, audit, plugineval or cli.
"""
