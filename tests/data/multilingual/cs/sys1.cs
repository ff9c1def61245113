Včera prezident navštívil novou továrnu v Brně.
Firma oznámila snížení cen elektrické energie.
Marie Nováková dostala cenu za nejlepší román roku.
Déšť bude pokračovat na severu do konce týdne.
