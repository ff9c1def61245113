Prezident včera navštívil novou továrnu v Brně.
Společnost oznámila snížení cen elektřiny.
Marie Nováková získala cenu za nejlepší román roku.
Deště budou pokračovat na severu až do konce týdne.
