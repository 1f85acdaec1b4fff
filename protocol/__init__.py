"""GTP version 2 engine and UGI front end over the gtpgames rules cores."""
