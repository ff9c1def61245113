El presidente visitó ayer una nueva fábrica en Sevilla.
La empresa anunció una bajada de los precios de la electricidad.
María García recibió un premio por la mejor novela del año.
Las lluvias continuarán en el norte hasta el final de la semana.
