Prezident továrna navštívit.
Ceny elektřina společnost.
Marie cena román.
Déšť sever týden.
