"""Figure generators of the ledger (``yatmath figures``): one module per figure, each exposing
its data and a drawing registered in :mod:`proofs_check.figures.registry`;
:mod:`proofs_check.figures.render` writes them (PNG, PDF and a JSON sidecar)."""
