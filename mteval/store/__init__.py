"""mteval.store"""
