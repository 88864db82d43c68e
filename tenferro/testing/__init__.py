"""Testing tools for tenferro op plugins: sample strategies and the finite-difference oracle.

Importing this package needs the ``test`` extra (pytest, hypothesis); the runtime never
imports it except lazily, when a spec's ``sample`` factory is called.
"""
