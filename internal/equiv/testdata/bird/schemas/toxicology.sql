CREATE TABLE atom
(
    atom_id TEXT
        primary key,
    molecule_id TEXT,
    element TEXT,
    foreign key (molecule_id) references molecule (molecule_id)
);

CREATE TABLE bond
(
    bond_id TEXT
        primary key,
    molecule_id TEXT,
    bond_type TEXT,
    foreign key (molecule_id) references molecule (molecule_id)
);

CREATE TABLE connected
(
    atom_id TEXT,
    atom_id2 TEXT,
    bond_id TEXT,
    primary key (atom_id, atom_id2)
    foreign key (bond_id) references bond (bond_id)
    foreign key (atom_id2) references atom (atom_id)
    foreign key (atom_id) references atom (atom_id)
);

CREATE TABLE molecule
(
    molecule_id TEXT
        primary key,
    label TEXT
);
