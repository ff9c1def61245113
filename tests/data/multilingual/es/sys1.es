Ayer el presidente visitó una nueva fábrica en Sevilla.
La compañía anunció una reducción de los precios de la electricidad.
María García recibió un galardón por la mejor novela del año.
La lluvia seguirá en el norte hasta el fin de la semana.
