Presidente fábrica visitó.
Precios electricidad empresa.
María premio novela.
Lluvias norte semana.
