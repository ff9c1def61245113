"""Statistics against human judgements and between systems: correlations, WMT/mt-metrics-eval statistics,
significance tests, paired resampling, clusters."""
