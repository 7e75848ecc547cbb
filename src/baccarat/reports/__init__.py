"""Self-contained reports made from the analysis and the simulation: the HTML PAR sheet."""
