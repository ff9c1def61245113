"""mteval.meta"""
