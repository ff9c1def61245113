"""``mteval report``: one self-contained HTML file of a campaign, read from the score cache."""
