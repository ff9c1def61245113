"""iqeval's measures (IQMT manual §4.2), read from the cache: selections (-M -S -R -T), scores outside
QARLA, correlations with human assessments, system comparisons, QARLA views, -TRY and metric tuning."""
