-- Back to no per-group state (the states are dropped with the table).
DROP TABLE action_group_states;
