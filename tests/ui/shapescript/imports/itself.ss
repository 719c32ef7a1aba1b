# A file can't import itself (E0202).
import itself # ~ E0202
