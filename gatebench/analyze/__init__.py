"""`gatebench analyze`: what each gate configuration buys, at what cost, with honest error bars.

One job per module, plain data between them:
load (ledger lines -> Run rows) -> cells (one scored record per cell, infra errors apart) ->
metrics / gates (numbers, using stats) -> pipeline (the order of the steps, -> models.analysis.Analysis)
-> tables -> report_md / report_html (+ svg). synth and calibrate simulate ledgers with known effects.
Definitions: SPEC.md "## analyze".
"""
