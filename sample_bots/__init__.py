"""The sample bots: scripts to run (``python sample_bots/greedy_bot.py --arena HOST:PORT``) and to copy.

Installed with the arena as the data package ``mau_arena_samples``, so ``arena serve --demo`` finds them
after a plain ``pip install`` (`arena.samples`); nothing imports them as a package.
"""
