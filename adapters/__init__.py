"""Adapters that let existing tools (GoGui, gogui-twogtp, cutegames) run gtpgames."""
