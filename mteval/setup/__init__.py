"""iqsetup's computation (IQMT manual §4.1): the plan of score files, the engines that compute them
(local processes, Dask), what is shipped to workers, the annotation, hybridization and learned stages,
and the checks of cached files against what would be written now."""
