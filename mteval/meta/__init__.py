"""Meta-evaluation: QARLA (qarla/), statistics against human judgements and between systems (stats/),
learned metric combinations (learn/)."""
