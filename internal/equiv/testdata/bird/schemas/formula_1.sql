CREATE TABLE circuits
(
    circuitId INTEGER
        primary key,
    circuitRef TEXT,
    name TEXT,
    location TEXT,
    country TEXT,
    lat REAL,
    lng REAL,
    alt INTEGER,
    url TEXT
);

CREATE TABLE constructors
(
    constructorId INTEGER
        primary key,
    constructorRef TEXT,
    name TEXT,
    nationality TEXT,
    url TEXT
);

CREATE TABLE drivers
(
    driverId INTEGER
        primary key,
    driverRef TEXT,
    number INTEGER,
    code TEXT,
    forename TEXT,
    surname TEXT,
    dob DATE,
    nationality TEXT,
    url TEXT
);

CREATE TABLE seasons
(
    year INTEGER
        primary key,
    url TEXT
);

CREATE TABLE races
(
    raceId INTEGER
        primary key,
    year INTEGER,
    round INTEGER,
    circuitId INTEGER,
    name TEXT,
    date DATE,
    time TEXT,
    url TEXT,
    foreign key (circuitId) references circuits (circuitId)
    foreign key (year) references seasons (year)
);

CREATE TABLE constructorResults
(
    constructorResultsId INTEGER
        primary key,
    raceId INTEGER,
    constructorId INTEGER,
    points REAL,
    status TEXT,
    foreign key (constructorId) references constructors (constructorId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE constructorStandings
(
    constructorStandingsId INTEGER
        primary key,
    raceId INTEGER,
    constructorId INTEGER,
    points REAL,
    position INTEGER,
    positionText TEXT,
    wins INTEGER,
    foreign key (constructorId) references constructors (constructorId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE driverStandings
(
    driverStandingsId INTEGER
        primary key,
    raceId INTEGER,
    driverId INTEGER,
    points REAL,
    position INTEGER,
    positionText TEXT,
    wins INTEGER,
    foreign key (driverId) references drivers (driverId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE lapTimes
(
    raceId INTEGER,
    driverId INTEGER,
    lap INTEGER,
    position INTEGER,
    time TEXT,
    milliseconds INTEGER,
    primary key (raceId, driverId, lap)
    foreign key (driverId) references drivers (driverId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE pitStops
(
    raceId INTEGER,
    driverId INTEGER,
    stop INTEGER,
    lap INTEGER,
    time TEXT,
    duration TEXT,
    milliseconds INTEGER,
    primary key (raceId, driverId, stop)
    foreign key (driverId) references drivers (driverId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE qualifying
(
    qualifyId INTEGER
        primary key,
    raceId INTEGER,
    driverId INTEGER,
    constructorId INTEGER,
    number INTEGER,
    position INTEGER,
    q1 TEXT,
    q2 TEXT,
    q3 TEXT,
    foreign key (constructorId) references constructors (constructorId)
    foreign key (driverId) references drivers (driverId)
    foreign key (raceId) references races (raceId)
);

CREATE TABLE status
(
    statusId INTEGER
        primary key,
    status TEXT
);

CREATE TABLE results
(
    resultId INTEGER
        primary key,
    raceId INTEGER,
    driverId INTEGER,
    constructorId INTEGER,
    number INTEGER,
    grid INTEGER,
    position INTEGER,
    positionText TEXT,
    positionOrder INTEGER,
    points REAL,
    laps INTEGER,
    time TEXT,
    milliseconds INTEGER,
    fastestLap INTEGER,
    rank INTEGER,
    fastestLapTime TEXT,
    fastestLapSpeed TEXT,
    statusId INTEGER,
    foreign key (statusId) references status (statusId)
    foreign key (constructorId) references constructors (constructorId)
    foreign key (driverId) references drivers (driverId)
    foreign key (raceId) references races (raceId)
);
