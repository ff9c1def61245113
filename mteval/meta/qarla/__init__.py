"""QARLA (Amigó et al. 2005; IQMT manual §3): QUEEN, KING, JACK and the KING metric-set optimisation."""
