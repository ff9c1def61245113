"""The experiment and its inputs: experiment files (YAML, IQMT key=value, IQeval.config), sets, texts,
the hybrid reference set's spec, the mt-metrics-eval importer and :class:`Campaign` (one per command)."""
