"""Studies behind the ledger and the figures: code that runs an experiment of a paper (data,
classifiers, metrics, drivers) on top of ``yatmath``, not part of the library itself."""
