"""Figure generators: one module per figure, each exposing its data and a render()."""
